package com.example.library.service

import com.example.library.model.Fine
import com.example.library.model.Member

/** Fine per day of late return, in cents. */
const val FINE_PER_DAY_CENTS = 25L

/**
 * How many days [member] may keep a book: guests get a week.
 *
 * @param member the borrower
 */
fun loanDaysFor(member: Member): Int {
    if (member.isGuest()) {
        return 7
    }
    return LoanService.DEFAULT_LOAN_DAYS
}

/**
 * The fine for returning a book [daysLate] days late.
 *
 * @param daysLate days after the due day, at least one
 */
fun fineFor(daysLate: Int): Fine = Fine(daysLate * FINE_PER_DAY_CENTS, "late return")
