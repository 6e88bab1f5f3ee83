const { BookService } = require('../services/bookService');
const { AuthorStore, BookStore } = require('../db/store');
const slug = require('../lib/slug');

/** The book use cases shared by every request of this process. */
const service = new BookService(new BookStore(), new AuthorStore());

/** GET /books: the catalogue, titles shortened for list views. */
exports.list = (req, res) => {
  const books = service.list().map((book) => ({ ...book, title: slug.truncate(book.title, 40) }));
  res.json(books);
};

/** GET /books/:id: one book, 404 when unknown. */
exports.show = (req, res, next) => {
  try {
    res.json(service.find(Number(req.params.id)));
  } catch (err) {
    next(err);
  }
};

/** POST /books: adds a book from the JSON body. */
exports.create = function create(req, res, next) {
  try {
    res.status(201).json(service.add(req.body));
  } catch (err) {
    next(err);
  }
};
