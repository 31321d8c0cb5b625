// Fills the blind index of encrypted contact values written through TypeORM's entity manager.
import { Injectable } from '@nestjs/common';
import { InjectDataSource } from '@nestjs/typeorm';
import {
  DataSource,
  EntitySubscriberInterface,
  InsertEvent,
  ObjectLiteral,
  UpdateEvent,
} from 'typeorm';
import { blindIndexOf, ENCRYPTED_CONTACT_COLUMNS } from './blind-index';

@Injectable()
export class BlindIndexSubscriber implements EntitySubscriberInterface {
  constructor(@InjectDataSource() ds: DataSource) {
    if (!ds.subscribers.some((s) => s instanceof BlindIndexSubscriber)) ds.subscribers.push(this);
  }

  beforeInsert(event: InsertEvent<ObjectLiteral>): void {
    this.fill(event.metadata.target, event.entity);
  }

  beforeUpdate(event: UpdateEvent<ObjectLiteral>): void {
    this.fill(event.metadata.target, event.entity);
  }

  // eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
  private fill(target: string | Function, entity: ObjectLiteral | undefined): void {
    if (!entity) return;
    const spec = ENCRYPTED_CONTACT_COLUMNS.find((s) => s.entity === target);
    if (!spec) return;
    for (const col of spec.columns) {
      const value: unknown = entity[col.property];
      if (col.hash && typeof value === 'string') {
        entity[col.hash.property] = blindIndexOf(col.hash.kind, value);
      }
    }
  }
}
