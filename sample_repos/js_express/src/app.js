const express = require('express');
const bookRoutes = require('./routes/books');
const authorRoutes = require('./routes/authors');
const { logRequests } = require('./middleware/auth');

/**
 * Creates the Express application with the book and author routers mounted and a
 * final error handler that answers JSON.
 * @returns {import('express').Express} the configured application
 */
function createApp() {
  const app = express();
  app.use(express.json());
  app.use(logRequests);
  app.use('/books', bookRoutes);
  app.use('/authors', authorRoutes);
  app.use((err, req, res, next) => {
    res.status(err.status || 500).json({ error: err.message });
  });
  return app;
}

module.exports = { createApp };
