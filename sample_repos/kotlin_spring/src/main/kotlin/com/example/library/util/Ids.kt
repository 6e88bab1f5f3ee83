package com.example.library.util

import java.util.UUID

/** Length of the random part of generated identifiers. */
const val ID_LENGTH = 8

/**
 * A new random identifier such as `loan-3f2a9c1d`.
 *
 * @param prefix short type prefix
 */
fun newId(prefix: String): String = newId(prefix, ID_LENGTH)

/**
 * A new random identifier with [length] random characters, e.g. `loan-3f2a`.
 *
 * @param prefix short type prefix
 * @param length number of random characters
 */
fun newId(prefix: String, length: Int): String {
    val random = UUID.randomUUID().toString().take(length)
    return "$prefix-$random"
}

/**
 * Formats a day number for humans, e.g. `day 19723`.
 *
 * @param day days since the epoch
 */
fun formatDay(day: Int): String = "day $day"
