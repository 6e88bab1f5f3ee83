//! Storage of books and loans.

pub mod memory;

use crate::models::{Book, Loan};

/// Persistence the library service needs.
pub trait Store: Send + Sync {
    /// Every book.
    fn books(&self) -> Vec<Book>;
    /// One book by id.
    fn book(&self, id: u64) -> Option<Book>;
    /// Insert or replace a book.
    fn save_book(&self, book: Book);
    /// Delete a book; whether it existed.
    fn delete_book(&self, id: u64) -> bool;
    /// Record a loan.
    fn save_loan(&self, loan: Loan);
    /// Number of books, by default counted from `books`.
    fn count(&self) -> usize {
        self.books().len()
    }
}
