using Shop.Core.Data;
using Shop.Core.Extensions;
using Shop.Core.Models;

namespace Shop.Core.Services;

/// <summary>Registers users and keeps them in the repository.</summary>
public class UserService : IUserService
{
    private readonly IUserRepository _repository;
    private readonly Notifier _notifier = new Notifier();

    public UserService(IUserRepository repository)
    {
        _repository = repository;
    }

    public User? Find(int id) => _repository.Get(id);

    public User Register(string name, string email)
    {
        var user = new User { Name = name.Slugify(), Email = email };
        user.Validate();
        _repository.Add(user);
        _notifier.Notify(user);
        _notifier.Notify($"registered {email}");
        return user;
    }

    public void Deactivate(int id)
    {
        User? user = Find(id);
        if (user != null)
        {
            user.Active = false;
            _notifier.Notify(user.Email, 2);
        }
    }

    public int Count() => _repository.All().Count;
}

public class Notifier
{
    public void Notify(User user) => Notify(user.Email);

    public void Notify(string message) => Notify(message, 1);

    public void Notify(string message, int priority)
    {
        Console.WriteLine($"[{priority}] {message}");
    }
}
