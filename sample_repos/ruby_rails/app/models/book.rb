# A book of the library.
class Book
  include Trackable
  attr_reader :title, :author

  def initialize(title, author)
    @title = title
    @author = author
  end

  def summary
    "#{title} by #{author}"
  end

  def rename(title)
    @title = title
    touch
  end
end
