package com.example.library.repository

import com.example.library.model.Loan
import org.springframework.stereotype.Repository

/**
 * Current loans, searchable by member and by identifier.
 */
@Repository
class LoanRepository : BaseStore<Loan>() {

    /**
     * Loans of one member.
     *
     * @param memberId the member
     */
    fun findByMember(memberId: String): List<Loan> {
        val result = mutableListOf<Loan>()
        for (loan in snapshot()) {
            if (loan.memberId == memberId) {
                result.add(loan)
            }
        }
        return result
    }

    /**
     * A loan by identifier.
     *
     * @param id the loan identifier
     * @return the loan, or null when unknown
     */
    fun findById(id: String): Loan? {
        for (loan in snapshot()) {
            if (loan.id == id) {
                return loan
            }
        }
        return null
    }

    /**
     * Forgets a returned loan.
     *
     * @param id the loan identifier
     */
    fun close(id: String) {
        entries.removeIf { it.id == id }
    }
}
