package com.example.library.controller

import com.example.library.model.Loan
import com.example.library.model.LoanResult
import com.example.library.model.Member
import com.example.library.service.LoanService
import org.springframework.http.ResponseEntity
import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.PathVariable
import org.springframework.web.bind.annotation.PostMapping
import org.springframework.web.bind.annotation.RequestMapping
import org.springframework.web.bind.annotation.RequestMethod
import org.springframework.web.bind.annotation.RequestParam
import org.springframework.web.bind.annotation.RestController

/**
 * REST API for loans.
 *
 * @property loanService lending use cases
 */
@RestController
@RequestMapping(value = ["/api/loans"])
class LoanController(private val loanService: LoanService) {

    /**
     * Borrows a book; anonymous callers borrow as the guest member.
     *
     * @param isbn the book
     * @param memberId the borrowing member, if any
     */
    @PostMapping("/books/{isbn}")
    fun borrow(@PathVariable isbn: String, @RequestParam memberId: String?): ResponseEntity<String> {
        val member = if (memberId == null) Member.guest() else Member(memberId, memberId)
        return toResponse(loanService.borrow(isbn, member))
    }

    /**
     * Returns a borrowed book.
     *
     * @param id the loan identifier
     */
    @RequestMapping(value = ["/{id}/return"], method = [RequestMethod.POST])
    fun giveBack(@PathVariable id: String): ResponseEntity<String> = toResponse(loanService.giveBack(id))

    /**
     * Loans of a member.
     *
     * @param memberId the member
     */
    @GetMapping("/members/{memberId}")
    fun loansOf(@PathVariable memberId: String): List<Loan> = loanService.loansOf(memberId)

    /** The lending policy as plain text. */
    @GetMapping("/policy")
    fun policy(): String = LoanService.policyText()

    /** Overdue loans and the number of active loans. */
    @GetMapping("/overdue")
    fun overdue(): String = loanService.overdueReport() + "\nactive: " + loanService.activeLoans()

    /** Maps a [LoanResult] to an HTTP response. */
    private fun toResponse(result: LoanResult): ResponseEntity<String> =
        when (result) {
            is LoanResult.Success -> ResponseEntity.ok(result.loan.id)
            is LoanResult.Failure -> ResponseEntity.status(409).body(result.reason)
            LoanResult.NotFound -> ResponseEntity.notFound().build()
        }
}
