//! The lending rules, over any `Store`.

use crate::error::LibraryError;
use crate::models::{Book, Loan, NewBook, Status};
use crate::store::Store;

/// The library: catalogue and lending on top of a store.
pub struct Library<S: Store> {
    store: S,
    next_id: std::sync::atomic::AtomicU64,
}

impl<S: Store> Library<S> {
    /// A library over `store`; new ids start after the books it holds.
    pub fn new(store: S) -> Self {
        let first = store.count() as u64 + 1;
        Library { store, next_id: std::sync::atomic::AtomicU64::new(first) }
    }

    /// Every book, sorted by title.
    pub fn catalogue(&self) -> Vec<Book> {
        let mut books = self.store.books();
        books.sort_by(|a, b| a.title.cmp(&b.title));
        books
    }

    /// One book, or `NotFound`.
    pub fn find(&self, id: u64) -> Result<Book, LibraryError> {
        self.store.book(id).ok_or(LibraryError::NotFound(id))
    }

    /// Add a validated new book with the next id.
    pub fn add(&self, input: NewBook) -> Book {
        let id = self.allocate_id();
        let book = Book { id, title: input.title, author: input.author, status: Status::Available };
        self.store.save_book(book.clone());
        book
    }

    /// Withdraw a book.
    pub fn remove(&self, id: u64) -> Result<(), LibraryError> {
        if self.store.delete_book(id) { Ok(()) } else { Err(LibraryError::NotFound(id)) }
    }

    /// Lend a book: it must exist and be available.
    pub fn lend(&self, book_id: u64, member: &str) -> Result<Loan, LibraryError> {
        let mut book = self.find(book_id)?;
        if book.status != Status::Available {
            return Err(LibraryError::AlreadyLent(book_id));
        }
        book.status = Status::Lent { member: member.to_string() };
        let loan = Loan { book_id, member: member.to_string() };
        self.store.save_book(book);
        self.store.save_loan(loan.clone());
        Ok(loan)
    }

    /// Take a lent book back.
    pub fn take_back(&self, book_id: u64) -> Result<(), LibraryError> {
        let mut book = self.find(book_id)?;
        let label = book.status.label();
        if label != "lent" {
            return Err(LibraryError::Invalid(format!("book {book_id} is {label}")));
        }
        book.status = Status::Available;
        self.store.save_book(book);
        Ok(())
    }

    fn allocate_id(&self) -> u64 {
        self.next_id.fetch_add(1, std::sync::atomic::Ordering::SeqCst)
    }
}
