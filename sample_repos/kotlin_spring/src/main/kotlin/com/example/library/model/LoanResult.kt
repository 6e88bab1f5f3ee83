package com.example.library.model

/**
 * Outcome of a loan operation, exhaustively matched with `when`.
 */
sealed class LoanResult {

    /** The operation succeeded on [loan]. */
    data class Success(val loan: Loan) : LoanResult()

    /** The operation was refused for [reason]. */
    data class Failure(val reason: String) : LoanResult()

    /** The book or loan does not exist. */
    object NotFound : LoanResult()
}
