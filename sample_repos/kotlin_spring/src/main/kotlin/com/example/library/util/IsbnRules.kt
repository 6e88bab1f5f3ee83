package com.example.library.util

/**
 * ISBN-13 validation rules, shared by every service.
 */
object IsbnRules {

    /** Number of digits of an ISBN-13. */
    private const val LENGTH = 13

    /**
     * Removes dashes and spaces.
     *
     * @param isbn the ISBN as typed by a user
     */
    fun normalize(isbn: String): String = isbn.replace("-", "").replace(" ", "")

    /**
     * Whether [isbn] has thirteen digits once normalised.
     *
     * @param isbn the ISBN as typed by a user
     */
    fun isValid(isbn: String): Boolean {
        val digits = normalize(isbn)
        return digits.length == LENGTH && digits.all { it.isDigit() }
    }
}
