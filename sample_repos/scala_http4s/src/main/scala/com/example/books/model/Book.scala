package com.example.books.model

/** A book of the catalogue. */
case class Book(id: Int, title: String, author: Author) {
  /** One line for listings. */
  def label(): String = s"$title by ${author.display()}"
}

object Book {
  /** A new book by an unknown author, not stored yet. */
  def draft(title: String): Book = new Book(0, title, Author.unknown())
}
