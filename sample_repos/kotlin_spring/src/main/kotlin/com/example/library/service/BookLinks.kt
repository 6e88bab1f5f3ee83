package com.example.library.service

import com.example.library.model.Book
import com.example.library.util.label
import com.example.library.util.path
import com.example.library.util.slug

/** Links and captions of books for the web pages (uses extension functions). */
class BookLinks {

    /** Caption of [book] in a list. */
    fun caption(book: Book): String = book.label()

    /** Link to [book] and a slug of the author. */
    fun link(book: Book): Pair<String, String> = book.path() to book.author.slug()
}
