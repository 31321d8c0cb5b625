// A contact import (§7): its file, settings, processing state and counters.
import type { ValueTransformer } from 'typeorm';
import { Column, CreateDateColumn, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';
import type { OrgId } from '../common/org-id';

export const IMPORT_STATUSES = [
  'uploaded',
  'queued',
  'processing',
  'completed',
  'completed_with_errors',
  'failed',
  'cancelled',
] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];

/** States a worker should be running (the sweeper's scope). */
export const ACTIVE_IMPORT_STATUSES: readonly ImportStatus[] = ['queued', 'processing'];
/** States an import ends in; DELETE accepts these and `uploaded`. */
export const FINISHED_IMPORT_STATUSES: readonly ImportStatus[] = [
  'completed',
  'completed_with_errors',
  'failed',
  'cancelled',
];

export const DUPLICATE_HANDLING = ['skip', 'update'] as const;
export type DuplicateHandling = (typeof DUPLICATE_HANDLING)[number];

export interface FieldMapping {
  csvHeader: string;
  serviceField: string;
}

/** bigint columns as numbers (byte offsets stay far below 2^53). */
const bigintNumber: ValueTransformer = {
  to: (v: number | null | undefined) => v,
  from: (v: string | null) => (v === null ? null : Number(v)),
};

/** One uploaded file and its processing state (§7). */
@Entity('contact_imports')
export class ContactImport {
  @PrimaryColumn('uuid') id: string;
  @Column('uuid') organizationId: OrgId;
  @Column('text') fileName: string;
  /** A key of the import files' store (ImportStorage). */
  @Column('text') filePath: string;
  @Column('bigint', { transformer: bigintNumber }) fileSize: number;
  @Column('text') delimiter: ',' | ';';
  @Column('text', { array: true }) headers: string[];
  @Column('text') status: ImportStatus;
  @Column('int') totalRows: number;
  @Column('int') processedRows: number;
  @Column('int') successCount: number;
  @Column('int') errorCount: number;
  @Column('int') newCount: number;
  @Column('int') duplicateCount: number;
  @Column('text') duplicateHandling: DuplicateHandling;
  @Column('boolean') allowPartialUpload: boolean;
  @Column('text', { nullable: true }) listName: string | null;
  @Column('uuid', { nullable: true }) listId: string | null;
  @Column('text', { array: true }) tags: string[];
  @Column('boolean') consentConfirmed: boolean;
  @Column('jsonb') fieldMappings: FieldMapping[];
  /** A key of the import files' store (ErrorsFile); null while the import has no invalid row. */
  @Column('text', { nullable: true }) errorsFilePath: string | null;
  /** Length of the errors file as of the last committed batch. */
  @Column('bigint', { transformer: bigintNumber }) errorsFileBytes: number;
  /** Why the import failed, in words a person can act on. */
  @Column('text', { nullable: true }) errorReason: string | null;
  /** The whole file was read once (rows counted, and validated when partial uploads are off). */
  @Column('boolean') scanned: boolean;
  /** Data rows (1-based, header excluded) written by committed batches. */
  @Column('int') checkpointRow: number;
  /** Byte offset just after row `checkpointRow`. */
  @Column('bigint', { transformer: bigintNumber }) checkpointByte: number;
  /** When the source file was removed (the import ended); null while it is on disk. */
  @Column('timestamptz', { nullable: true }) sourceRemovedAt: Date | null;
  @Column('timestamptz', { nullable: true }) cancelRequestedAt: Date | null;
  @Column('uuid', { nullable: true }) leaseToken: string | null;
  @Column('timestamptz', { nullable: true }) heartbeatAt: Date | null;
  @Column('int') attempts: number;
  @Column('text', { nullable: true }) jobId: string | null;
  @Column('timestamptz', { nullable: true }) enqueuedAt: Date | null;
  @Column('timestamptz', { nullable: true }) startedAt: Date | null;
  @Column('timestamptz', { nullable: true }) completedAt: Date | null;
  @CreateDateColumn({ type: 'timestamptz' }) createdAt: Date;
  @UpdateDateColumn({ type: 'timestamptz' }) updatedAt: Date;
}
