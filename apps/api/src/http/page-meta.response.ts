// The `meta` of a paged list (§4): totals, page numbers and relative page URLs.
import { ApiProperty } from '@nestjs/swagger';
import type { PageMeta } from '@app/domain';

/** Pagination of a list; the URLs keep the request's other query parameters. */
export class PageMetaResponse implements PageMeta {
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
