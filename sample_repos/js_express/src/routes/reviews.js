const express = require('express');
const { truncate } = require('../lib/slug');

/** Public review routes (mounted under /reviews by src/adminApp.js). */
const reviewsRouter = express.Router();
/** Moderation routes (mounted under /admin/reviews by src/adminApp.js). */
const moderationRouter = express.Router();

/** Reviews waiting for a moderator. */
function listPending(req, res) {
  res.json({ pending: [], note: truncate('nothing to moderate', 10) });
}

reviewsRouter.route('/:bookId')
  .get((req, res) => {
    res.json({ bookId: req.params.bookId, reviews: [] });
  })
  .post((req, res) => {
    res.status(201).json({ text: truncate(String(req.body.text || ''), 140) });
  });

moderationRouter.route('/pending').get(listPending);

module.exports = { reviewsRouter, moderationRouter };
