package com.example.library.service

import org.springframework.stereotype.Component

/**
 * Sends messages to members (e-mail, SMS...).
 */
interface Notifier {

    /**
     * Delivers [message] to the member.
     *
     * @param memberId the recipient
     * @param message plain text
     */
    fun send(memberId: String, message: String)
}

/**
 * [Notifier] that only writes to standard output.
 */
@Component
class ConsoleNotifier : Notifier {

    override fun send(memberId: String, message: String) {
        println("to $memberId: $message")
    }
}

/**
 * Source of the current day, replaceable in tests.
 */
interface DayClock {

    /** Days since the epoch. */
    fun today(): Int
}

/**
 * [DayClock] reading the system clock.
 */
@Component
class SystemDayClock : DayClock {

    override fun today(): Int = (System.currentTimeMillis() / MILLIS_PER_DAY).toInt()

    /** Constants of the system clock. */
    companion object {
        private const val MILLIS_PER_DAY = 86_400_000L
    }
}
