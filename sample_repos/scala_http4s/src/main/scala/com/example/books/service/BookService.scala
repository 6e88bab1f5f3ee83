package com.example.books
package service

import com.example.books.model._
import com.example.books.repo.BookRepo

/** The use cases of the catalogue. */
class BookService(repo: BookRepo) {
  /** Add a book by its title. */
  def add(title: String): Book = {
    val book = Book.draft(title)
    repo.save(book)
  }

  def lookup(id: Int): Option[Book] = repo.find(id)

  /** Describe a book for people, or say that there is none. */
  def describe(id: Int): String = {
    val found: Option[Book] = this.lookup(id)
    found.map(_.label()).getOrElse("no such book")
  }
}

/** A catalogue that logs every book added. */
class AuditedBookService(repo: BookRepo) extends BookService(repo) with util.Logging {
  override def add(title: String): Book = {
    log(s"adding $title")
    super.add(title)
  }
}
