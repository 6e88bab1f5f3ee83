//! HTTP handlers.

pub mod books;
pub mod loans;

use axum::http::StatusCode;
use axum::Json;

use crate::error::LibraryError;

/// Map a library error to a status code and a JSON message.
pub fn error_response(err: LibraryError) -> (StatusCode, Json<String>) {
    let status = match err {
        LibraryError::NotFound(_) => StatusCode::NOT_FOUND,
        LibraryError::AlreadyLent(_) => StatusCode::CONFLICT,
        LibraryError::Invalid(_) => StatusCode::BAD_REQUEST,
    };
    (status, Json(err.describe()))
}
