package com.example.library.controller

import org.springframework.web.bind.annotation.GetMapping
import org.springframework.web.bind.annotation.RequestMapping
import org.springframework.web.bind.annotation.RestController

/** Liveness and readiness; its routes are built from the `const val`s of its companion. */
@RestController
@RequestMapping("/api/status")
class StatusController {

    /** Always up while the process runs. */
    @GetMapping(LIVE)
    fun live(): String = "up"

    /** Ready once started. */
    @GetMapping("$READY/now")
    fun ready(): String = "ready"

    /** Route paths used by the mappings above. */
    companion object {
        /** Path of the liveness probe. */
        const val LIVE = "/live"

        /** Path of the readiness probe, below [LIVE]. */
        const val READY = LIVE + "/ready"
    }
}
