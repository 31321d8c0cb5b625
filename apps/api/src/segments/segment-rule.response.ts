// The rule tree of a dynamic segment (§6) as the document describes it: a group of conditions, and
// one condition schema per kind of field, naming that kind's fields and operators.
import { ApiExtraModels, ApiProperty, getSchemaPath } from '@nestjs/swagger';
import {
  CHANNEL_OPERATORS,
  CODE_FIELDS,
  CODE_OPERATORS,
  CUSTOM_FIELD_OPERATORS,
  DATE_FIELDS,
  DATE_OPERATORS,
  EMAIL_OPERATORS,
  EMAIL_STATUS_OPERATORS,
  LIST_OPERATORS,
  TAG_OPERATORS,
  TEXT_FIELDS,
  TEXT_OPERATORS,
} from '@app/domain';
import type { RuleConditionJson, RuleGroupJson } from '@app/domain';
import { CHANNEL, EMAIL_STATUS } from '../http/openapi-enums';

const NO_VALUE = 'Omitted for isEmpty / isNotEmpty.';
const STRINGS = { type: 'array', items: { type: 'string' } } as const;
/** The document's EmailStatus schema (named by ContactEmailResponse's status). */
const EMAIL_STATUS_REF = { $ref: getSchemaPath(EMAIL_STATUS.enumName) };

/** A condition on a text field of the contact. */
export class SegmentTextConditionResponse {
  @ApiProperty({ enum: TEXT_FIELDS, enumName: 'SegmentTextField' })
  field: string;

  @ApiProperty({ enum: TEXT_OPERATORS, enumName: 'SegmentTextOperator' })
  operator: string;

  @ApiProperty({ required: false, description: NO_VALUE })
  value?: string;
}

/** A condition on a coded field: `status` (one of ContactStatus), `language`, `timezone`. */
export class SegmentCodeConditionResponse {
  @ApiProperty({ enum: CODE_FIELDS, enumName: 'SegmentCodeField' })
  field: string;

  @ApiProperty({ enum: CODE_OPERATORS, enumName: 'SegmentCodeOperator' })
  operator: string;

  @ApiProperty({
    description: 'A list for in / notIn, one value otherwise.',
    oneOf: [{ type: 'string' }, STRINGS],
  })
  value: string | string[];
}

/** A condition on a date of the contact. */
export class SegmentDateConditionResponse {
  @ApiProperty({ enum: DATE_FIELDS, enumName: 'SegmentDateField' })
  field: string;

  @ApiProperty({ enum: DATE_OPERATORS, enumName: 'SegmentDateOperator' })
  operator: string;

  @ApiProperty({
    required: false,
    description: `An ISO 8601 date; two for between; a number of days for the …LastDays operators. ${NO_VALUE}`,
    oneOf: [{ type: 'string' }, { ...STRINGS, minItems: 2, maxItems: 2 }, { type: 'integer' }],
  })
  value?: string | string[] | number;
}

/** A condition on the contact's tag names. */
export class SegmentTagsConditionResponse {
  @ApiProperty({ enum: ['tags'] })
  field: string;

  @ApiProperty({ enum: TAG_OPERATORS, enumName: 'SegmentTagsOperator' })
  operator: string;

  @ApiProperty(STRINGS)
  value: string[];
}

/** A condition on the lists the contact is subscribed to. */
export class SegmentListsConditionResponse {
  @ApiProperty({ enum: ['lists'] })
  field: string;

  @ApiProperty({ enum: LIST_OPERATORS, enumName: 'SegmentListsOperator' })
  operator: string;

  /** List ids. */
  @ApiProperty({ type: 'array', items: { type: 'string', format: 'uuid' } })
  value: string[];
}

/** A condition on the channels the contact can be reached on. */
export class SegmentChannelConditionResponse {
  @ApiProperty({ enum: ['channel'] })
  field: string;

  @ApiProperty({ enum: CHANNEL_OPERATORS, enumName: 'SegmentChannelOperator' })
  operator: string;

  @ApiProperty({ ...CHANNEL, isArray: true })
  value: string[];
}

/** A condition on the contact's email addresses. */
export class SegmentEmailConditionResponse {
  @ApiProperty({ enum: ['email'] })
  field: string;

  @ApiProperty({ enum: EMAIL_OPERATORS, enumName: 'SegmentEmailOperator' })
  operator: string;

  @ApiProperty({ required: false, description: NO_VALUE })
  value?: string;
}

/** A condition on the status of the contact's email addresses. */
export class SegmentEmailStatusConditionResponse {
  @ApiProperty({ enum: ['emailStatus'] })
  field: string;

  @ApiProperty({ enum: EMAIL_STATUS_OPERATORS, enumName: 'SegmentEmailStatusOperator' })
  operator: string;

  @ApiProperty({
    description: 'A list for in, one value for equals.',
    oneOf: [EMAIL_STATUS_REF, { type: 'array', items: EMAIL_STATUS_REF }],
  })
  value: string | string[];
}

/** A condition on one custom field, `customFields.<key>`. */
export class SegmentCustomFieldConditionResponse {
  @ApiProperty({ pattern: '^customFields\\.[A-Za-z0-9_]{1,64}$' })
  field: string;

  @ApiProperty({ enum: CUSTOM_FIELD_OPERATORS, enumName: 'SegmentCustomFieldOperator' })
  operator: string;

  @ApiProperty({
    required: false,
    description: `A number for gt, gte, lt, lte; a string otherwise. ${NO_VALUE}`,
    oneOf: [{ type: 'string' }, { type: 'number' }],
  })
  value?: string | number;
}

const CONDITIONS = [
  SegmentTextConditionResponse,
  SegmentCodeConditionResponse,
  SegmentDateConditionResponse,
  SegmentTagsConditionResponse,
  SegmentListsConditionResponse,
  SegmentChannelConditionResponse,
  SegmentEmailConditionResponse,
  SegmentEmailStatusConditionResponse,
  SegmentCustomFieldConditionResponse,
];

/** A group of rules: every condition (`and`) or any (`or`); groups nest. */
@ApiExtraModels(...CONDITIONS)
export class SegmentRuleGroupResponse implements RuleGroupJson {
  @ApiProperty({ enum: ['and', 'or'] })
  operator: 'and' | 'or';

  @ApiProperty({
    type: 'array',
    items: {
      oneOf: [
        { $ref: getSchemaPath('SegmentRuleGroupResponse') },
        ...CONDITIONS.map((c) => ({ $ref: getSchemaPath(c) })),
      ],
    },
  })
  conditions: (SegmentRuleGroupResponse | RuleConditionJson)[];
}
