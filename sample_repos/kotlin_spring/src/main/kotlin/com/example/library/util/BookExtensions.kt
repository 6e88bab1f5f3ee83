package com.example.library.util

import com.example.library.model.Book

/** The title in lower case with dashes instead of blanks, e.g. `clean-code`. */
fun String.slug(): String = trim().lowercase().replace(" ", "-")

/** `Title (Year)`, the way lists show a book. */
fun Book.label(): String = "$title ($year)"

/** A stable URL path of the book, built from its label. */
fun Book.path(): String = "/books/" + label().slug()
