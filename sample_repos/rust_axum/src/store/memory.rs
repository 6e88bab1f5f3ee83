//! An in-memory store behind a mutex.

use std::collections::HashMap;
use std::sync::Mutex;

use super::Store;
use crate::models::{Book, Loan, Status};

/// Log a store operation (the name of the operation and the book id).
macro_rules! trace_op {
    ($op:expr, $id:expr) => {
        eprintln!("store {} {}", $op, $id)
    };
}

/// Books and loans kept in memory.
#[derive(Default)]
pub struct MemoryStore {
    books: Mutex<HashMap<u64, Book>>,
    loans: Mutex<Vec<Loan>>,
}

impl MemoryStore {
    /// A store holding two classics.
    pub fn seeded() -> Self {
        let store = Self::default();
        store.insert(1, "Dune", "Frank Herbert");
        store.insert(2, "Emma", "Jane Austen");
        store
    }

    fn insert(&self, id: u64, title: &str, author: &str) {
        let book = Book {
            id,
            title: title.to_string(),
            author: author.to_string(),
            status: Status::Available,
        };
        self.save_book(book);
    }
}

impl Store for MemoryStore {
    fn books(&self) -> Vec<Book> {
        self.books.lock().unwrap().values().cloned().collect()
    }

    fn book(&self, id: u64) -> Option<Book> {
        self.books.lock().unwrap().get(&id).cloned()
    }

    fn save_book(&self, book: Book) {
        trace_op!("save", book.id);
        self.books.lock().unwrap().insert(book.id, book);
    }

    fn delete_book(&self, id: u64) -> bool {
        trace_op!("delete", id);
        self.books.lock().unwrap().remove(&id).is_some()
    }

    fn save_loan(&self, loan: Loan) {
        self.loans.lock().unwrap().push(loan);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> MemoryStore {
        MemoryStore::seeded()
    }

    #[test]
    fn seeded_store_counts_two_books() {
        let store = fixture();
        assert_eq!(store.count(), 2);
        assert!(store.delete_book(1));
    }
}
