// The `meta` of a paged list (§4), written by the envelope from the service's Page.
import { ApiProperty } from '@nestjs/swagger';

/** Where the page sits in the list; the URLs are relative and keep the other query parameters. */
export class PageMetaResponse {
  total: number;

  perPage: number;

  currentPage: number;

  lastPage: number;

  firstPage: number;

  firstPageUrl: string;

  lastPageUrl: string;

  @ApiProperty({ type: String, nullable: true })
  nextPageUrl: string | null;

  @ApiProperty({ type: String, nullable: true })
  previousPageUrl: string | null;
}
