// The contact rules as DTO decorators: class-validator constraints and OpenAPI keywords.
import { applyDecorators } from '@nestjs/common';
import { ApiProperty } from '@nestjs/swagger';
import { IsString } from 'class-validator';
import {
  ContactRuleName,
  ruleDecorators,
  ruleSchema,
  TAGS_PER_CONTACT,
  tagCountDecorator,
} from '@app/domain';

/** A string field checked by one contact rule. */
export function ContactRule(name: ContactRuleName) {
  return applyDecorators(ApiProperty(ruleSchema(name)), ...ruleDecorators(name));
}

/** An array of tag names: at most TAGS_PER_CONTACT strings, each one a `tagName`. */
export function TagNames() {
  return applyDecorators(
    ApiProperty({
      maxItems: TAGS_PER_CONTACT,
      items: { type: 'string', ...ruleSchema('tagName') },
    }),
    ...ruleDecorators('tagName', true),
    IsString({ each: true }),
    tagCountDecorator(),
  );
}
