//! Lending handlers: borrow and return a book.

use axum::extract::{Path, State};
use axum::routing::post;
use axum::{Json, Router};

use crate::handlers::error_response;
use crate::models::Loan;
use crate::AppState;

/// Routes mounted under `/api/loans`.
pub fn loan_routes() -> Router<AppState> {
    Router::new()
        .route("/:book_id/:member", post(borrow_book))
        .route("/:book_id/return", post(return_book))
}

/// Lend a book to a member.
pub async fn borrow_book(
    State(state): State<AppState>,
    Path((book_id, member)): Path<(u64, String)>,
) -> Result<Json<Loan>, (axum::http::StatusCode, Json<String>)> {
    let loan = state.library.lend(book_id, &member).map_err(error_response)?;
    Ok(Json(loan))
}

/// Take a lent book back.
pub async fn return_book(State(state): State<AppState>, Path(book_id): Path<u64>) -> Json<bool> {
    Json(state.library.take_back(book_id).is_ok())
}
