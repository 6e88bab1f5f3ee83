/**
 * Minimal in-memory table keyed by numeric id. Base class of the concrete stores.
 */
class Store {
  constructor() {
    /** @type {Map<number, object>} */
    this.rows = new Map();
    this.lastId = 0;
  }

  /** All rows, oldest first. */
  all() {
    return [...this.rows.values()];
  }

  /** One row by id, or null. */
  get(id) {
    return this.rows.get(id) || null;
  }

  /** Stores a row, assigning an id to new ones, and returns the stored copy. */
  put(row) {
    const id = row.id || this.nextId();
    const stored = { ...row, id };
    this.rows.set(id, stored);
    return stored;
  }

  /** Allocates the next free id. */
  nextId() {
    this.lastId += 1;
    return this.lastId;
  }
}

/** Books; each row has title, authorId and slug. */
class BookStore extends Store {
  /** @param {Array<object>} seed rows to start with */
  constructor(seed = []) {
    super();
    seed.forEach((book) => this.put(book));
  }

  /** Books written by one author. */
  byAuthor(authorId) {
    return this.all().filter((book) => book.authorId === authorId);
  }
}

/** Authors; each row has a name. */
class AuthorStore extends Store {}

module.exports = { Store, BookStore, AuthorStore };
