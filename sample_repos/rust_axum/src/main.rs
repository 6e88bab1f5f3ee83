//! The bookshelf service: an axum router over an in-memory store.

mod error;
mod handlers;
mod models;
mod routes;
mod service;
mod store;

use std::sync::Arc;

use crate::service::Library;
use crate::store::memory::MemoryStore;

/// Shared state handed to every handler.
#[derive(Clone)]
pub struct AppState {
    pub library: Arc<Library<MemoryStore>>,
}

#[tokio::main]
async fn main() {
    let store = MemoryStore::seeded();
    let state = AppState { library: Arc::new(Library::new(store)) };
    let app = routes::app(state);
    let listener = tokio::net::TcpListener::bind("0.0.0.0:3000").await.unwrap();
    axum::serve(listener, app).await.unwrap();
}
