/** Raised when a requested record does not exist; the API answers 404. */
class NotFoundError extends Error {
  /** @param {string} what description of the missing record, e.g. "book 7" */
  constructor(what) {
    super(`${what} not found`);
    this.status = 404;
  }
}

module.exports = { NotFoundError };
