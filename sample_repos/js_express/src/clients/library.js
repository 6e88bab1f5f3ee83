// Calls the library service (the Kotlin Spring sample) for the loan status of books.
const LIBRARY_URL = process.env.LIBRARY_URL || 'http://library:8080';

/** The loan policy of the library. */
async function loanPolicy() {
  const res = await fetch(`${LIBRARY_URL}/api/loans/policy`);
  return res.json();
}

/** Borrows a book for a member. */
async function borrow(isbn, memberId) {
  return fetch(`${LIBRARY_URL}/api/loans/books/${isbn}`, {
    method: 'POST',
    body: JSON.stringify({ memberId }),
  });
}

module.exports = { loanPolicy, borrow };
