package com.example.library.repository

import com.example.library.model.Book

/**
 * Storage of the book catalogue.
 */
interface BookRepository {

    /**
     * Looks a book up.
     *
     * @param isbn normalised ISBN
     * @return the book, or null when unknown
     */
    fun findByIsbn(isbn: String): Book?

    /** Inserts or replaces [book]. */
    fun save(book: Book)

    /** Every book of the catalogue. */
    fun listAll(): List<Book>
}

/**
 * [BookRepository] kept in a map; good enough for tests and demos.
 */
class InMemoryBookRepository : BookRepository {

    private val booksByIsbn = mutableMapOf<String, Book>()

    override fun findByIsbn(isbn: String): Book? = booksByIsbn[isbn]

    override fun save(book: Book) {
        booksByIsbn[book.isbn] = book
    }

    override fun listAll(): List<Book> = booksByIsbn.values.toList()
}
