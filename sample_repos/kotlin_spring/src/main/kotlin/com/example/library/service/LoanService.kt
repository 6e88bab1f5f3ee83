package com.example.library.service

import com.example.library.model.Fine
import com.example.library.model.Loan
import com.example.library.model.LoanResult
import com.example.library.model.Member
import com.example.library.model.OverdueReport
import com.example.library.repository.LoanRepository
import com.example.library.util.formatDay
import com.example.library.util.newId
import org.springframework.stereotype.Service

/**
 * Lending use cases: borrow, return and overdue reporting.
 *
 * All collaborators are constructor-injected.
 */
@Service
class LoanService(
    private val catalog: CatalogService,
    private val loans: LoanRepository,
    private val clock: DayClock,
    private val notifier: Notifier,
) {

    /** Lending policy constants. */
    companion object {
        /** Loan duration for members. */
        const val DEFAULT_LOAN_DAYS = 21

        /** The policy as shown to visitors. */
        fun policyText(): String = "Members keep books $DEFAULT_LOAN_DAYS days, guests 7 days."
    }

    /**
     * Lends the book [isbn] to [member].
     *
     * @return [LoanResult.Success] with the new loan, or [LoanResult.NotFound]
     */
    fun borrow(isbn: String, member: Member): LoanResult {
        val book = catalog.find(isbn) ?: return LoanResult.NotFound
        val today = clock.today()
        val due = today + loanDaysFor(member)
        val loan = Loan(newId("loan"), book.isbn, member.id, due)
        loans.insert(loan)
        notifier.send(member.id, "You borrowed '${book.title}' until " + formatDay(due))
        return LoanResult.Success(loan)
    }

    /**
     * Closes a loan; a late return costs a fine.
     *
     * @param loanId the loan being returned
     */
    fun giveBack(loanId: String): LoanResult {
        val loan: Loan = loans.findById(loanId) ?: return LoanResult.NotFound
        val late = loan.daysLate(clock.today())
        loans.close(loanId)
        if (late > 0) {
            val fine: Fine = fineFor(late)
            notifier.send(loan.memberId, "Returned late: " + fine.describe())
            return LoanResult.Failure("returned $late days late")
        }
        return LoanResult.Success(loan)
    }

    /**
     * Loans of one member.
     *
     * @param memberId the member
     */
    fun loansOf(memberId: String): List<Loan> = loans.findByMember(memberId)

    /** Text report of every overdue loan, for the librarians. */
    fun overdueReport(): String {
        val report = OverdueReport(clock.today())
        for (loan in loans.snapshot()) {
            report.include(loan)
        }
        return report.render()
    }

    /** Number of books currently lent. */
    fun activeLoans(): Int = loans.size()
}
