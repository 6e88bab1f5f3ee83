package com.example.shop.clients;

import org.springframework.cloud.openfeign.FeignClient;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;

/**
 * The library service (the Kotlin Spring sample), called through OpenFeign.
 */
@FeignClient(name = "library", url = "${library.url}", path = "/api")
public interface LibraryClient {

    /** The loans of a member of the library. */
    @GetMapping("/loans/members/{memberId}")
    String loansOf(@PathVariable("memberId") String memberId);

    /** One book of the library. */
    @GetMapping("/books/{isbn}")
    String book(@PathVariable("isbn") String isbn);
}
