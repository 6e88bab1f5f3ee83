//! Errors of the library service.

/// What can go wrong when lending books.
#[derive(Debug)]
pub enum LibraryError {
    NotFound(u64),
    AlreadyLent(u64),
    Invalid(String),
}

impl LibraryError {
    /// A human-readable message.
    pub fn describe(&self) -> String {
        match self {
            LibraryError::NotFound(id) => format!("no book {id}"),
            LibraryError::AlreadyLent(id) => format!("book {id} is already lent"),
            LibraryError::Invalid(why) => why.clone(),
        }
    }
}

impl std::fmt::Display for LibraryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.describe())
    }
}
