// Body of the tag routes: a tag's name.
import { IsDefined, IsString } from 'class-validator';
import { ContactRule } from './contact-rules.decorators';

export class TagNameDto {
  @IsDefined()
  @IsString()
  @ContactRule('tagName')
  name: string;
}
