// Body of the tag routes: a tag's name, by the contact rules.
import { IsDefined, IsString } from 'class-validator';
import { ContactRule } from './contact-rules.decorators';

export class TagNameDto {
  @IsDefined()
  @IsString()
  @ContactRule('tagName')
  name: string;
}
