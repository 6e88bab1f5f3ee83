package com.example.library.model

/**
 * A book of the catalogue, identified by its ISBN-13.
 *
 * @property isbn normalised ISBN without dashes
 * @property title the title as printed
 * @property author main author
 * @property year year of publication
 */
data class Book(
    val isbn: String,
    val title: String,
    val author: String,
    val year: Int,
)

/**
 * A library member who can borrow books.
 *
 * @property id member identifier
 * @property name display name
 */
data class Member(val id: String, val name: String) {

    /** Factories for special members. */
    companion object {
        /** Identifier shared by all anonymous visitors. */
        const val GUEST_ID = "guest"

        /**
         * A walk-in visitor without a membership card.
         *
         * @return the shared guest member
         */
        fun guest(): Member = Member(GUEST_ID, "Guest")
    }

    /** Whether this is the anonymous guest member. */
    fun isGuest(): Boolean = id == GUEST_ID
}
