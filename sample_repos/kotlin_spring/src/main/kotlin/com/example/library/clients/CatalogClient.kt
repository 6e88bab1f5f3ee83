package com.example.library.clients

import org.springframework.beans.factory.annotation.Value
import org.springframework.web.client.RestTemplate

/**
 * Reads books and authors of the catalog service (the JavaScript Express sample).
 */
class CatalogClient(
    private val restTemplate: RestTemplate,
    @Value("\${express.catalog.url}") private val catalogUrl: String,
) {

    /** One book of the catalog. */
    fun book(id: String): String? =
        restTemplate.getForObject("$catalogUrl/books/$id", String::class.java)

    /** Every author of the catalog. */
    fun authors(): String? = restTemplate.getForObject("$catalogUrl/authors", String::class.java)

    /** Adds a review to a book. */
    fun review(bookId: String, text: String) {
        restTemplate.postForObject("$catalogUrl/reviews/$bookId", text, String::class.java)
    }
}
