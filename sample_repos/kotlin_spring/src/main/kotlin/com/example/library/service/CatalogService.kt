package com.example.library.service

import com.example.library.model.Book
import com.example.library.repository.BookRepository
import com.example.library.util.IsbnRules
import org.springframework.stereotype.Service

/**
 * Catalogue use cases: lookup, registration and search.
 *
 * @property books the catalogue storage
 */
@Service
class CatalogService(private val books: BookRepository) {

    /**
     * Finds a book by ISBN, accepting dashes and spaces.
     *
     * @param isbn the ISBN as typed
     */
    fun find(isbn: String): Book? = books.findByIsbn(IsbnRules.normalize(isbn))

    /**
     * Adds [book] to the catalogue.
     *
     * @throws IllegalArgumentException when the ISBN is invalid
     */
    fun register(book: Book): Book {
        require(IsbnRules.isValid(book.isbn)) { "invalid ISBN ${book.isbn}" }
        val normalized = book.copy(isbn = IsbnRules.normalize(book.isbn))
        books.save(normalized)
        return normalized
    }

    /**
     * Books written by [author], sorted by year.
     *
     * @param author exact author name
     */
    fun byAuthor(author: String): List<Book> =
        books.listAll().filter { it.author == author }.sortedBy { it.year }

    /**
     * Books written by [author] since [fromYear], at most [limit] of them.
     *
     * @param author exact author name
     * @param fromYear first publication year included
     * @param limit maximum number of books
     */
    fun byAuthor(author: String, fromYear: Int, limit: Int = 10): List<Book> =
        byAuthor(author).filter { it.year >= fromYear }.take(limit)

    /**
     * This century's books of [author].
     *
     * @param author exact author name
     */
    fun recent(author: String): List<Book> = byAuthor(author, 2000)
}
