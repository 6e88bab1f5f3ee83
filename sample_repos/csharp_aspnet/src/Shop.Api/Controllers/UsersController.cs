using Microsoft.AspNetCore.Mvc;
using Shop.Core.Models;
using Shop.Core.Services;

namespace Shop.Api.Controllers;

/// <summary>
/// User accounts: look up, register and deactivate users.
/// </summary>
[ApiController]
[Route("api/[controller]")]
public class UsersController : ControllerBase
{
    private readonly IUserService _users;

    public UsersController(IUserService users)
    {
        _users = users;
    }

    /// <summary>Returns one user by id, or 404.</summary>
    [HttpGet("{id:int}")]
    public ActionResult<User> Get(int id)
    {
        var user = _users.Find(id);
        if (user is null)
        {
            return NotFound();
        }
        return user;
    }

    [HttpPost]
    public ActionResult<User> Register([FromBody] RegisterUser request)
    {
        var user = _users.Register(request.Name, request.Email);
        return CreatedAtAction(nameof(Get), new { id = user.Id }, user);
    }

    [HttpDelete("{id:int}")]
    public IActionResult Deactivate(int id)
    {
        _users.Deactivate(id);
        return NoContent();
    }

    [HttpGet("/admin/users/[action]")]
    public int Count() => _users.Count();
}

public record RegisterUser(string Name, string Email);
