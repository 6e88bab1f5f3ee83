package com.example.library.model

/**
 * A book lent to a member until [dueDay] (days since the epoch).
 */
data class Loan(
    val id: String,
    val isbn: String,
    val memberId: String,
    val dueDay: Int,
) {

    /**
     * Whether the loan should have been returned before [today].
     *
     * @param today the current day number
     */
    fun isOverdue(today: Int): Boolean = today > dueDay

    /**
     * Number of days the return is late; zero when on time.
     *
     * @param today the current day number
     */
    fun daysLate(today: Int): Int {
        if (!isOverdue(today)) {
            return 0
        }
        return today - dueDay
    }
}

/**
 * A fine owed for a late return. Built through its explicit constructor so that the
 * amount is always validated.
 */
class Fine {
    /** Amount in cents. */
    val cents: Long

    /** Why the fine was issued. */
    val reason: String

    /**
     * Creates a fine.
     *
     * @param cents amount in cents, never negative
     * @param reason human readable reason
     */
    constructor(cents: Long, reason: String) {
        require(cents >= 0) { "fine must not be negative" }
        this.cents = cents
        this.reason = reason
    }

    /** A one-line description such as `1.25 EUR (late return)`. */
    fun describe(): String {
        val euros = cents / 100
        val rest = cents % 100
        return "$euros.$rest EUR ($reason)"
    }
}
