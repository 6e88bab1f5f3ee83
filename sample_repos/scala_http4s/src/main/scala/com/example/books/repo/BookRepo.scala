package com.example.books.repo

import com.example.books.model.Book
import com.example.books.util.{Logging => Audit}

/** Where books are kept. */
trait BookRepo {
  def find(id: Int): Option[Book]
  def save(book: Book): Book
}

/** Keeps books in a map, for tests and the demo. */
class MemoryBookRepo extends BookRepo with Audit {
  private var books: Map[Int, Book] = Map.empty

  def find(id: Int): Option[Book] = books.get(id)

  def save(book: Book): Book = {
    val stored = book.copy(id = books.size + 1)
    books = books + (stored.id -> stored)
    log(s"saved ${stored.label()}")
    stored
  }
}
