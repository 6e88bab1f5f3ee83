const express = require('express');
const { reviewsRouter, moderationRouter } = require('./routes/reviews');
const { format } = require('./lib/format');
const { Counter } = require('./lib/counter');

/**
 * A second application for reviews: two routers of one module, one of them mounted
 * through a local admin router (`/admin` + `/reviews`).
 * @returns {import('express').Express} the configured application
 */
function createAdminApp() {
  const app = express();
  const admin = express.Router();
  admin.use('/reviews', moderationRouter);
  app.use('/admin', admin);
  app.use('/reviews', reviewsRouter);
  app.locals.banner = format.banner('reviews');
  const starts = new Counter('admin');
  starts.hit('start');
  return app;
}

module.exports = { createAdminApp };
