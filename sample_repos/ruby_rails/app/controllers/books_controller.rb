# Lists, shows and adds books; reserves one for a member.
class BooksController < ApplicationController
  def initialize
    @catalogue = Catalogue.new(BookRepository.new)
  end

  def index
    render_json(@catalogue.all_titles)
  end

  def show
    book = @catalogue.find(params[:id])
    render_json(book.summary)
  end

  def create
    book = @catalogue.add(params[:title], params[:author])
    render_json(book.summary, status: 201)
  end

  def search
    render_json(@catalogue.search(params[:q]))
  end

  def reserve
    Lending::Policy.check!(params[:id])
    render_json(:reserved)
  end
end
