const { AuthorStore, BookStore } = require('../db/store');
const { NotFoundError } = require('../errors');
const { slugify } = require('../lib/slug');

/** Catalogue operations on books. */
class BookService {
  /**
   * Stores default to fresh in-memory ones; tests pass their own.
   * @param {BookStore} books book storage
   * @param {AuthorStore} authors author storage
   */
  constructor(books = new BookStore(), authors = new AuthorStore()) {
    this.books = books;
    this.authors = authors;
  }

  /** All books, each with its author's name. */
  list() {
    return this.books.all().map((book) => this.withAuthor(book));
  }

  /**
   * One book with its author's name.
   * @throws {NotFoundError} when there is no such book
   */
  find(id) {
    const book = this.books.get(id);
    if (!book) {
      throw new NotFoundError(`book ${id}`);
    }
    return this.withAuthor(book);
  }

  /** Adds a book for an existing author; the slug is derived from the title. */
  add(input) {
    if (!this.authors.get(input.authorId)) {
      throw new NotFoundError(`author ${input.authorId}`);
    }
    return this.books.put({ ...input, slug: slugify(input.title) });
  }

  /** Books of one author. */
  byAuthor(authorId) {
    return this.books.byAuthor(authorId);
  }

  /** Copy of a book with the author's name added. */
  withAuthor(book) {
    const author = this.authors.get(book.authorId);
    return { ...book, author: author ? author.name : null };
  }
}

module.exports = { BookService };
