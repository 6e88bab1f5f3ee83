const express = require('express');
const books = require('../controllers/booksController');
const { requireApiKey } = require('../middleware/auth');

/** Routes under /books (mounted by src/app.js). */
const router = express.Router();

router.get('/', books.list);
router.get('/:id', books.show);
router.post('/', requireApiKey, books.create);

module.exports = router;
