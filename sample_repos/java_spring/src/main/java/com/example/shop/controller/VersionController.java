package com.example.shop.controller;

import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** Version information; its routes are built from string constants. */
@RestController
@RequestMapping(VersionController.BASE)
public class VersionController {

    static final String BASE = "/api/version";
    private static final String DETAILS = "/details";

    /** Build details of the running service. */
    @GetMapping(value = {DETAILS + "/build", "/build"})
    public String build() {
        return "shop " + BASE;
    }
}
