// Request body of the sending-domain routes (§13).
import { IsDefined, IsString, MaxLength } from 'class-validator';

export class CreateSendingDomainDto {
  /** The domain mail is sent From (its subdomains are covered too), e.g. `example.com`. */
  @IsDefined()
  @IsString()
  @MaxLength(253)
  name: string;
}
