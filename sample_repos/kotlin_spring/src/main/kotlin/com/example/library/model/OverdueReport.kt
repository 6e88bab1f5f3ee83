package com.example.library.model

/**
 * Collects overdue loans for a given day and renders them as text.
 *
 * @property today the day the report is made for
 */
class OverdueReport(val today: Int) {

    private val overdueIds = mutableListOf<String>()

    /**
     * Adds [loan] to the report when it is overdue.
     *
     * @param loan a current loan
     */
    fun include(loan: Loan) {
        if (loan.isOverdue(today)) {
            overdueIds.add(loan.id)
        }
    }

    /** One line per overdue loan, or a friendly message when there is none. */
    fun render(): String =
        if (overdueIds.isEmpty()) "no overdue loans" else overdueIds.joinToString("\n")
}
