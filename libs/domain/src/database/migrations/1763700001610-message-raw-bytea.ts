import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A message relayed over SMTP keeps its raw RFC 5322 bytes in `messages.raw`, encrypted as bytes
 * (FieldCipher.encryptBytes), instead of base64 inside the encrypted JSON content: a 10 KB message
 * was base64'd twice (~18 KB of text) and compressed in vain by TOAST. STORAGE EXTERNAL: ciphertext
 * does not compress, so PostgreSQL stores it out of line without trying. Rows written before keep
 * their raw in the content, and are read as before.
 */
export class MessageRawBytea1763700001610 implements MigrationInterface {
  name = 'MessageRawBytea1763700001610';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE messages ADD COLUMN raw bytea`);
    await q.query(`ALTER TABLE messages ALTER COLUMN raw SET STORAGE EXTERNAL`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE messages DROP COLUMN raw`);
  }
}
