//! Route table: books and loans under /api, health at the root.

use axum::routing::{get, post};
use axum::Router;

use crate::handlers::{books, loans};
use crate::AppState;

/// The whole application router.
pub fn app(state: AppState) -> Router {
    Router::new()
        .route("/health", get(|| async { "ok" }))
        .nest("/api", api_routes())
        .with_state(state)
}

/// Routes mounted under `/api`.
fn api_routes() -> Router<AppState> {
    Router::new()
        .route("/books", get(books::list_books).post(books::add_book))
        .route("/books/:id", get(books::get_book).delete(books::remove_book))
        .nest("/loans", loans::loan_routes())
}
