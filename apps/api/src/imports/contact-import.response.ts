// Response shapes of contact imports (§7): an import, and the upload's preview.
import { ApiProperty } from '@nestjs/swagger';
import { DUPLICATE_HANDLING, IMPORT_STATUSES } from '@app/domain';
import type {
  ContactImport,
  DuplicateHandling,
  FieldMapping,
  ImportPreview,
  ImportStatus,
} from '@app/domain';
import { INSTANT, INSTANT_OR_NULL, STRING_OR_NULL, UUID } from '../http/openapi-properties';

/** A CSV column and the contact field it fills. */
export class ContactImportFieldMappingResponse implements FieldMapping {
  csvHeader: string;

  /** A contact field, `customFields.<key>`, `tags` or `ignore`. */
  serviceField: string;
}

/** A contact import: its file, settings, processing state and counters. */
export class ContactImportResponse {
  @ApiProperty(UUID)
  id: string;

  @ApiProperty(UUID)
  organizationId: string;

  fileName: string;

  /** Its key in the import files' store (STORAGE_URL). */
  filePath: string;

  @ApiProperty({ enum: IMPORT_STATUSES })
  status: ImportStatus;

  totalRows: number;

  processedRows: number;

  successCount: number;

  errorCount: number;

  newCount: number;

  duplicateCount: number;

  @ApiProperty({ enum: DUPLICATE_HANDLING })
  duplicateHandling: DuplicateHandling;

  allowPartialUpload: boolean;

  @ApiProperty(STRING_OR_NULL)
  listName: string | null;

  tags: string[];

  consentConfirmed: boolean;

  fieldMappings: ContactImportFieldMappingResponse[];

  /**
   * Its key in the import files' store: a folder of parts (`…/errors/`) while the import runs, one object once it ended; null while the import has no invalid row.
   */
  @ApiProperty(STRING_OR_NULL)
  errorsFilePath: string | null;

  /** Why the import failed. */
  @ApiProperty(STRING_OR_NULL)
  errorReason: string | null;

  @ApiProperty(INSTANT)
  createdAt: Date;

  @ApiProperty(INSTANT_OR_NULL)
  startedAt: Date | null;

  @ApiProperty(INSTANT_OR_NULL)
  completedAt: Date | null;

  @ApiProperty(INSTANT)
  updatedAt: Date;
}

/** The first rows of an uploaded file and the mappings its headers suggest. */
export class ContactImportPreviewResponse implements ImportPreview {
  headers: string[];

  @ApiProperty({ type: 'array', items: { type: 'array', items: { type: 'string' } } })
  rows: string[][];

  suggestedMappings: ContactImportFieldMappingResponse[];
}

/** An import, under `import`. */
export class ContactImportResultResponse {
  import: ContactImportResponse;
}

/** An uploaded draft and its preview. */
export class ContactImportUploadResponse {
  import: ContactImportResponse;

  preview: ContactImportPreviewResponse;
}

export function toContactImportResponse(i: ContactImport): ContactImportResponse {
  return {
    id: i.id,
    organizationId: i.organizationId,
    fileName: i.fileName,
    filePath: i.filePath,
    status: i.status,
    totalRows: i.totalRows,
    processedRows: i.processedRows,
    successCount: i.successCount,
    errorCount: i.errorCount,
    newCount: i.newCount,
    duplicateCount: i.duplicateCount,
    duplicateHandling: i.duplicateHandling,
    allowPartialUpload: i.allowPartialUpload,
    listName: i.listName,
    tags: i.tags,
    consentConfirmed: i.consentConfirmed,
    fieldMappings: i.fieldMappings,
    errorsFilePath: i.errorsFilePath,
    errorReason: i.errorReason,
    createdAt: i.createdAt,
    startedAt: i.startedAt,
    completedAt: i.completedAt,
    updatedAt: i.updatedAt,
  };
}

export function toContactImportResultResponse(i: ContactImport): ContactImportResultResponse {
  return { import: toContactImportResponse(i) };
}

export function toContactImportUploadResponse(u: {
  import: ContactImport;
  preview: ImportPreview;
}): ContactImportUploadResponse {
  return { import: toContactImportResponse(u.import), preview: u.preview };
}
