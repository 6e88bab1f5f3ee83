//! Domain types.

use serde::{Deserialize, Serialize};

use crate::error::LibraryError;

/// A book of the catalogue.
#[derive(Clone, Debug, Serialize)]
pub struct Book {
    pub id: u64,
    pub title: String,
    pub author: String,
    pub status: Status,
}

/// Whether a book can be lent.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub enum Status {
    Available,
    Lent { member: String },
}

impl Status {
    /// A short label for listings.
    pub fn label(&self) -> &'static str {
        match self {
            Status::Available => "available",
            Status::Lent { .. } => "lent",
        }
    }
}

/// The body of a request adding a book.
#[derive(Debug, Deserialize)]
pub struct NewBook {
    pub title: String,
    pub author: String,
}

impl NewBook {
    /// Reject empty titles and authors.
    pub fn validate(&self) -> Result<(), LibraryError> {
        require_text(&self.title, "title")?;
        require_text(&self.author, "author")
    }
}

/// A loan of a book to a member.
#[derive(Clone, Debug, Serialize)]
pub struct Loan {
    pub book_id: u64,
    pub member: String,
}

fn require_text(value: &str, what: &str) -> Result<(), LibraryError> {
    if value.trim().is_empty() {
        return Err(LibraryError::Invalid(format!("{what} must not be empty")));
    }
    Ok(())
}
