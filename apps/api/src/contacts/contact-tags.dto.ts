import { IsDefined, IsString, MaxLength, MinLength } from 'class-validator';

export class TagNameDto {
  @IsDefined()
  @IsString()
  @MinLength(1)
  @MaxLength(100)
  name: string;
}
