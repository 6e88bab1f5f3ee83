package com.example.books.model

/** Who wrote a book. */
case class Author(name: String) {
  def display(): String = name.capitalize
}

object Author {
  def unknown(): Author = Author("anonymous")
}
