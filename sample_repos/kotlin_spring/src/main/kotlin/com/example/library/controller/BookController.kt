package com.example.library.controller

import com.example.library.model.Book
import com.example.library.service.CatalogService
import org.springframework.http.ResponseEntity
import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.PathVariable
import org.springframework.web.bind.annotation.PostMapping
import org.springframework.web.bind.annotation.RequestBody
import org.springframework.web.bind.annotation.RequestMapping
import org.springframework.web.bind.annotation.RequestParam
import org.springframework.web.bind.annotation.RestController

/**
 * REST API of the catalogue.
 *
 * @property catalog catalogue use cases
 */
@RestController
@RequestMapping("/api/books")
class BookController(private val catalog: CatalogService) {

    /**
     * One book by ISBN.
     *
     * @param isbn the ISBN, dashes allowed
     */
    @GetMapping("/{isbn}")
    fun get(@PathVariable isbn: String): ResponseEntity<Book> {
        val book = catalog.find(isbn) ?: return ResponseEntity.notFound().build()
        return ResponseEntity.ok(book)
    }

    /**
     * Registers a new book.
     *
     * @param book the book as JSON
     */
    @PostMapping
    fun create(@RequestBody book: Book): Book = catalog.register(book)

    /**
     * Books of one author.
     *
     * @param author exact author name
     */
    @GetMapping(path = ["/by-author"])
    fun byAuthor(@RequestParam author: String): List<Book> = catalog.byAuthor(author)
}
