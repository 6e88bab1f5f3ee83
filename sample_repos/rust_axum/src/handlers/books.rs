//! Book catalogue handlers.

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::Json;

use super::error_response;
use crate::models::{Book, NewBook};
use crate::AppState;

/// List every book, sorted by title.
pub async fn list_books(State(state): State<AppState>) -> Json<Vec<Book>> {
    Json(state.library.catalogue())
}

/// Look one book up by its id.
pub async fn get_book(
    State(state): State<AppState>,
    Path(id): Path<u64>,
) -> Result<Json<Book>, (StatusCode, Json<String>)> {
    match state.library.find(id) {
        Ok(book) => Ok(Json(book)),
        Err(err) => Err(error_response(err)),
    }
}

/// Add a book to the catalogue after validating it.
pub async fn add_book(
    State(state): State<AppState>,
    Json(input): Json<NewBook>,
) -> Result<Json<Book>, (StatusCode, Json<String>)> {
    input.validate().map_err(error_response)?;
    let book = state.library.add(input);
    Ok(Json(book))
}

/// Withdraw a book from the catalogue.
pub async fn remove_book(State(state): State<AppState>, Path(id): Path<u64>) -> StatusCode {
    match state.library.remove(id) {
        Ok(()) => StatusCode::NO_CONTENT,
        Err(err) => error_response(err).0,
    }
}
