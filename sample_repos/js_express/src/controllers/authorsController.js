const { AuthorStore } = require('../db/store');
const { BookService } = require('../services/bookService');

/** HTTP handlers for authors. */
class AuthorsController {
  /**
   * @param {AuthorStore} authors author storage
   * @param {BookService} books book use cases, for the books of an author
   */
  constructor(authors = new AuthorStore(), books = new BookService()) {
    this.authors = authors;
    this.books = books;
  }

  /** GET /authors: every author. */
  list(req, res) {
    res.json(this.authors.all());
  }

  /** GET /authors/:id: one author with their books. */
  show(req, res) {
    const id = Number(req.params.id);
    const author = this.authors.get(id);
    if (!author) {
      res.status(404).json({ error: `author ${id} not found` });
      return;
    }
    res.json({ ...author, books: this.books.byAuthor(id) });
  }
}

module.exports = { AuthorsController };
