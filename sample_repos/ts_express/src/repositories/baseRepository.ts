import { Entity } from '../models';

/** Storage operations every repository offers, whatever the entity. */
export interface Repository<T extends Entity> {
  /** The entity with this id, or undefined. */
  findById(id: number): T | undefined;
  /** All entities in insertion order. */
  findAll(): T[];
  /** Inserts (id 0) or replaces an entity and returns the stored copy. */
  save(entity: T): T;
  /** Deletes an entity; false when it did not exist. */
  remove(id: number): boolean;
}

/**
 * In-memory implementation shared by the concrete repositories. Subclasses only
 * add queries and the validation rule of their entity.
 */
export abstract class BaseRepository<T extends Entity> implements Repository<T> {
  /** Stored entities by id. */
  protected readonly items = new Map<number, T>();

  private nextId = 1;

  findById(id: number): T | undefined {
    return this.items.get(id);
  }

  findAll(): T[] {
    return Array.from(this.items.values());
  }

  save(entity: T): T {
    const stored: T = { ...entity, id: entity.id || this.allocateId() };
    this.validate(stored);
    this.items.set(stored.id, stored);
    return stored;
  }

  remove(id: number): boolean {
    return this.items.delete(id);
  }

  /** Throws a ValidationError when the entity breaks a rule of its type. */
  protected abstract validate(entity: T): void;

  /** Next free id; ids are never reused. */
  private allocateId(): number {
    return this.nextId++;
  }
}
